// The flowControlKey provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/flowControlKey") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { flowControlKey } from "../resources/flowControlKey/declaration";
export = permanentModule(flowControlKey);
