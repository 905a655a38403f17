// The messagingSchedule provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingSchedule") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { messagingSchedule } from "../resources/messagingSchedule/declaration";
export = permanentModule(messagingSchedule);
