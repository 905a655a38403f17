// The messagingBudget provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingBudget") in state. Never move or rename (resources/providerRef.ts).
import { messagingBudgetProvider } from "../resources/messagingBudget";
import { providerModule } from "../resources/providerRef";
export = providerModule(messagingBudgetProvider);
