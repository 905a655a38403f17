import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import { camelize, type Camelized, type DatabaseRecord } from "../api/schemas";
import { programClient } from "../resources/programClient";

/** A database as the budget endpoints report it: databaseId, databaseName, region, state, budget, and more. */
export type Database = Camelized<DatabaseRecord>;
export type GetDatabasesResult = Database[];

/** The user's databases, for `DatabaseBudget`'s `databaseId`. */
export async function getDatabases(): Promise<GetDatabasesResult> {
  return (await programClient().databases.list()).map((d) => camelize(d));
}

export function getDatabasesOutput(): pulumi.Output<GetDatabasesResult> {
  return rootSdk().output(getDatabases());
}
