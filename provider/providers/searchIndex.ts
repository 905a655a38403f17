// The searchIndex provider as a module whose exports object is the provider: Pulumi stores
// require("pulumi-mgmt/internal/providers/searchIndex") in state. Never move or rename (resources/providerRef.ts).
import { searchIndexProvider } from "../resources/searchIndex/provider";
import { providerModule } from "../resources/providerModule";
export = providerModule(searchIndexProvider);
