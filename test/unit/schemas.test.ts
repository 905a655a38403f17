import {
  FlowControlInfo,
  MessagingAccountRecord,
  SearchIndexRecord,
  budget,
  camelize,
  describeIssues,
  flowControlKey,
  indexName,
  queueName,
} from "../../provider/api/schemas";

const index = {
  customer_id: "c",
  id: "i",
  name: "n",
  endpoint: "e",
  type: "free",
  region: "eu-west-1",
  integration_email: "",
  token: "t",
  read_only_token: "r",
  max_vector_count: 1,
  creation_time: 1,
  input_enrichment_enabled: false,
  throughput_vector: [{ x: "2026-01-01 00:00:00.000 +0000 UTC", y: 1 }],
};

describe("wire records", () => {
  test("a response missing id or token is an error that names the field", () => {
    for (const field of ["id", "token"]) {
      const { [field]: _gone, ...rest } = index as Record<string, unknown>;
      const result = SearchIndexRecord.safeParse(rest);
      expect(result.success).toBe(false);
      expect(describeIssues(result.error!)).toEqual([`${field}: is missing`]);
    }
    const account = MessagingAccountRecord.safeParse({ id: "a", region: "us-east-1" });
    expect(describeIssues(account.error!)).toEqual(["token: is missing"]);
  });

  test("tolerant where the spec says so: unknown states, absent optional fields, extra fields", () => {
    const parsed = MessagingAccountRecord.parse({
      id: "a",
      token: "t",
      region: "us-east-1",
      state: "suspended",
      prometheus_enabled: "true",
      brand_new_field: 1,
    });
    expect(parsed.state).toBe("suspended");
    expect(parsed.modifying_state).toBeUndefined();
    expect((parsed as Record<string, unknown>).brand_new_field).toBe(1);
    expect(
      MessagingAccountRecord.safeParse({ id: "a", token: "t", region: "us-east-1", prometheus_enabled: true }).success,
    ).toBe(false);
    expect(FlowControlInfo.parse({ flowControlKey: "k", waitListSize: 3, parallelism: 2 })).toMatchObject({
      waitListSize: 3,
      parallelism: 2,
    });
    expect(
      MessagingAccountRecord.parse({
        id: "a",
        token: "t",
        region: "us-east-1",
        enterprise: { enabled: true, seats: 3 },
      }).enterprise,
    ).toEqual({ enabled: true, seats: 3 });
  });

  test("one snake_case to camelCase mapping, shallow", () => {
    expect(
      camelize({ read_only_token: 1, max_dlq_retention_time_milis: 2, throughput_vector: [{ x: "a", y: 1 }], id: 3 }),
    ).toEqual({
      readOnlyToken: 1,
      maxDlqRetentionTimeMilis: 2,
      throughputVector: [{ x: "a", y: 1 }],
      id: 3,
    });
  });
});

describe("input rules", () => {
  test.each([
    [indexName, "ok_Name-1", true],
    [indexName, "", false],
    [indexName, "x".repeat(64), true],
    [indexName, "x".repeat(65), false],
    [indexName, "é", false],
    [budget, 0, true],
    [budget, 20, true],
    [budget, 10000, true],
    [budget, 19, false],
    [budget, -1, false],
    [budget, 20.5, false],
    [budget, 10001, false],
    [budget, "100", false],
    [flowControlKey, "tenant:42.a_b-c", true],
    [flowControlKey, "", false],
    [flowControlKey, "../x", false],
    [flowControlKey, "a/b", false],
    [flowControlKey, "..", false],
    [flowControlKey, "k".repeat(129), false],
    [flowControlKey, "ключ", false],
    [queueName, "emails.v1", true],
    [queueName, "a b", false],
  ] as const)("%#: %j -> %s", (schema, value, ok) => {
    expect(schema.safeParse(value).success).toBe(ok);
  });
});
