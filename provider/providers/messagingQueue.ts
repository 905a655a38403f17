// The messagingQueue provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingQueue") in state. Never move or rename (resources/providerRef.ts).
import { messagingQueueProvider } from "../resources/messagingQueue/provider";
import { providerModule } from "../resources/providerModule";
export = providerModule(messagingQueueProvider);
