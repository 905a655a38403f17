// The program `npm start` runs: a few search indexes declared as code.
import { SearchIndex } from "pulumi-mgmt";

const catalog = new SearchIndex("catalog", { name: "catalog", region: "eu-west-1", type: "payg" });
const support = new SearchIndex("support", { name: "support-articles", region: "us-central1", type: "free" });
const scratch = new SearchIndex("scratch", { region: "eu-west-1", type: "free" });

export const indexes = [catalog, support, scratch].map((i) => ({
  name: i.name,
  id: i.id,
  region: i.region,
  deployedRegion: i.deployedRegion,
  type: i.type,
  endpoint: i.endpoint,
}));
export const catalogToken = catalog.token;
