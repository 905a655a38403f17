// The databaseBudget provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/databaseBudget") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { databaseBudget } from "../resources/databaseBudget/declaration";
export = permanentModule(databaseBudget);
