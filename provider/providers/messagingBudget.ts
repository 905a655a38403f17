// The messagingBudget provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingBudget") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { messagingBudget } from "../resources/messagingBudget/declaration";
export = permanentModule(messagingBudget);
