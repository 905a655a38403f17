// The messagingAccount provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingAccount") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { messagingAccount } from "../resources/messagingAccount/declaration";
export = permanentModule(messagingAccount);
