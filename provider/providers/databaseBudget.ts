// The databaseBudget provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/databaseBudget") in state. Never move or rename (resources/providerRef.ts).
import { databaseBudgetProvider } from "../resources/databaseBudget/provider";
import { providerModule } from "../resources/providerModule";
export = providerModule(databaseBudgetProvider);
