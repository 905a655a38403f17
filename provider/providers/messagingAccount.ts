// The messagingAccount provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingAccount") in state. Never move or rename (resources/serializedProvider.ts).
import { messagingAccountProvider } from "../resources/messagingAccount/provider";
import { permanentModule } from "../resources/permanentModule";
export = permanentModule(messagingAccountProvider);
