// The messagingAccount provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingAccount") in state. Never move or rename (resources/providerRef.ts).
import { messagingAccountProvider } from "../resources/messagingAccount/provider";
import { providerModule } from "../resources/providerModule";
export = providerModule(messagingAccountProvider);
