// The queueResume provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/queueResume") in state. Never move or rename (resources/providerRef.ts).
import { queueResumeProvider } from "../resources/messagingControls";
import { providerModule } from "../resources/providerRef";
export = providerModule(queueResumeProvider);
