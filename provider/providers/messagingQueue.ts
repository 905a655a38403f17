// The messagingQueue provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingQueue") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { messagingQueue } from "../resources/messagingQueue/declaration";
export = permanentModule(messagingQueue);
