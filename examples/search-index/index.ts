// Search indexes as code: an explicitly named index, an auto-named one, and an adopted one.
import * as pulumi from "@pulumi/pulumi";
import { SearchIndex, getSearchIndexes } from "pulumi-mgmt";

const config = new pulumi.Config();

// Renaming `products` in place keeps its id; changing region or type replaces it.
const products = new SearchIndex("products", {
  name: config.get("productsName") ?? "products",
  region: "eu-west-1",
  type: "payg",
});

// No name: "logs-" plus a random suffix, kept stable across runs.
const logs = new SearchIndex("logs", { region: "us-central1", type: "free" });

// Bring an index that already exists under management (by id or exact name). It keeps its name,
// and destroy releases it: an adopted index is never deleted.
const adopted = config.get("adoptIndex");
const legacy = adopted ? new SearchIndex("legacy", { region: "eu-west-1", type: "free", adopt: adopted }) : undefined;

export const productsEndpoint = products.endpoint;
export const productsToken = products.token; // secret
export const logsName = logs.name;
export const logsDeployedRegion = logs.deployedRegion;
export const legacyId = legacy ? legacy.id : "none adopted";
// Read the list once the indexes exist (it carries tokens: only the count is exported).
export const indexCount = pulumi
  .all([products.id, logs.id, legacy?.id])
  .apply(async () => (await getSearchIndexes()).length);
