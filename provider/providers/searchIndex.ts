// The searchIndex provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/searchIndex") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { searchIndex } from "../resources/searchIndex/declaration";
export = permanentModule(searchIndex);
