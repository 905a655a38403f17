import { SearchIndex } from "pulumi-mgmt";

// One search index. Add a MessagingBudget or MessagingControls next (see pulumi-mgmt's docs/resources.md).
const index = new SearchIndex("search", { name: "${PROJECT}-search", region: "eu-west-1", type: "free" });

export const indexId = index.id;
export const endpoint = index.endpoint;
export const token = index.token; // a secret: `pulumi stack output token --show-secrets`
