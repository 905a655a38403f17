// The messagingSigningKeys provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/messagingSigningKeys") in state. Never move or rename (resources/dynamicDoor.ts).
import { permanentModule } from "../resources/permanentModule";
import { messagingSigningKeys } from "../resources/messagingSigningKeys/declaration";
export = permanentModule(messagingSigningKeys);
