// The urlGroup provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/urlGroup") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { urlGroup } from "../resources/urlGroup/declaration";
export = permanentModule(urlGroup);
