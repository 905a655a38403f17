/**
 * Configuration of the provider, resolved at run time (never captured in a serialized provider):
 * Pulumi config `mgmt:*` first, then the `MGMT_*` environment variables (contract "Names").
 */
import { z } from "zod";
import { processState } from "./processState";
import { UserError } from "./userError";

/** Whole numbers from config or environment (strings there): a default when not set. */
const wholeNumber = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      const n = Number(raw);
      if (Number.isInteger(n) && n >= 0) return n;
      ctx.addIssue({ code: "custom", message: "must be a whole number of at least 0" });
      return z.NEVER;
    });

function isHttpAddress(value: string): boolean {
  try {
    const { protocol } = new URL(value.replace("{region}", "region"));
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}
const address = z.string().refine(isHttpAddress, "must be an http:// or https:// address");

/**
 * The one settings schema: what each setting may hold, its default, and the type every part of
 * the package reads (`Settings`). Values arrive as strings from any source (resolveSettings).
 */
const SettingsSchema = z.object({
  baseUrl: address.optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  messagingUrl: address.optional(),
  regionalMessagingUrl: address
    .refine((v) => v.includes("{region}"), "must contain the placeholder {region}")
    .optional(),
  messagingToken: z.string().optional(),
  /**
   * The identity (as shown in an identity error) that this stack deliberately moves away from:
   * objects not visible under the new identity are then released from the stack instead of
   * failing the run. See resources/identity.ts.
   */
  movedFrom: z.string().optional(),
  /** Per attempt: connect plus answer headers and body. */
  timeoutMs: wholeNumber(10_000),
  connectTimeoutMs: wholeNumber(5_000),
  /** All attempts of one operation together. */
  totalTimeoutMs: wholeNumber(120_000),
  maxRetries: wholeNumber(5),
});
export type Settings = z.output<typeof SettingsSchema>;

/** Each setting's Pulumi config key and environment variable: the one table every message names. */
export const SETTINGS_KEYS = {
  baseUrl: { config: "mgmt:baseUrl", env: "MGMT_BASE_URL" },
  username: { config: "mgmt:username", env: "MGMT_USERNAME" },
  password: { config: "mgmt:password", env: "MGMT_PASSWORD", secret: true },
  messagingUrl: { config: "mgmt:messagingUrl", env: "MGMT_MESSAGING_URL" },
  regionalMessagingUrl: { config: "mgmt:regionalMessagingUrl", env: "MGMT_REGIONAL_MESSAGING_URL" },
  messagingToken: { config: "mgmt:messagingToken", env: "MGMT_MESSAGING_TOKEN", secret: true },
  movedFrom: { config: "mgmt:movedFrom", env: "MGMT_MOVED_FROM" },
  timeoutMs: { config: "mgmt:timeoutMs", env: "MGMT_TIMEOUT_MS" },
  connectTimeoutMs: { config: "mgmt:connectTimeoutMs", env: "MGMT_CONNECT_TIMEOUT_MS" },
  totalTimeoutMs: { config: "mgmt:totalTimeoutMs", env: "MGMT_TOTAL_TIMEOUT_MS" },
  maxRetries: { config: "mgmt:maxRetries", env: "MGMT_MAX_RETRIES" },
} as const satisfies Record<keyof Settings, { config: string; env: string; secret?: true }>;

export type SettingName = keyof typeof SETTINGS_KEYS;
type StringSetting = { [K in SettingName]: Settings[K] extends number ? never : K }[SettingName];

export class ConfigError extends UserError {
  override readonly name = "ConfigError";
  /** The config key the message is about, e.g. "mgmt:baseUrl". */
  constructor(
    message: string,
    readonly setting?: string,
  ) {
    super(message);
  }
}

/** A lookup of Pulumi config by full key ("mgmt:baseUrl"). */
export type ConfigSource = (key: string) => string | undefined;

/**
 * Settings already validated, by their raw values: a program validates its config once, not at
 * every declaration, function call and check (a driver's many stacks each have their own entry).
 */
const validated = new Map<string, Settings>();

/**
 * The one resolver of settings, whatever the source (the provider's `configure`, the program's
 * config, a stack's config in the Automation API): Pulumi config first (`mgmt:*`), then the
 * environment (`MGMT_*`); an empty value counts as not set. A malformed value fails naming its
 * key and variable.
 */
export function resolveSettings(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): Settings {
  const raw: Partial<Record<SettingName, string>> = {};
  for (const [name, keys] of Object.entries(SETTINGS_KEYS) as [SettingName, (typeof SETTINGS_KEYS)[SettingName]][]) {
    const value = config(keys.config) ?? env[keys.env];
    if (value !== undefined && value !== "") raw[name] = value;
  }
  const id = JSON.stringify(raw);
  const known = validated.get(id);
  if (known) return known;
  const parsed = SettingsSchema.safeParse(raw);
  if (parsed.success) {
    validated.set(id, parsed.data);
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const keys = SETTINGS_KEYS[issue.path[0] as SettingName];
  throw new ConfigError(
    `${keys.config} (or ${keys.env}) ${issue.message}, got "${raw[issue.path[0] as SettingName]}"`,
    keys.config,
  );
}

/**
 * One error object per missing-setting message. Pulumi's Node.js runtime reports an error object
 * once per run, so a program whose resources and function calls all miss the same setting is told
 * once, not once per caller.
 */
const missingSettingErrors = (): Map<string, ConfigError> =>
  processState("missingSettingErrors", () => new Map<string, ConfigError>());

/** The value of a setting an operation cannot do without, or an error that names where to set it. */
export function requireSetting<K extends StringSetting>(settings: Settings, name: K, purpose: string): string {
  const value = settings[name];
  if (value === undefined) {
    const keys = SETTINGS_KEYS[name];
    const how =
      "secret" in keys ? `pulumi config set --secret ${keys.config} ...` : `pulumi config set ${keys.config} ...`;
    const message = `${keys.config} is not set (needed to ${purpose}): run \`${how}\` or set ${keys.env}`;
    let err = missingSettingErrors().get(message);
    if (!err) missingSettingErrors().set(message, (err = new ConfigError(message, keys.config)));
    throw err;
  }
  return value;
}

const KNOWN_KEYS: readonly string[] = Object.values(SETTINGS_KEYS).map((k) => k.config);

/**
 * A stack config key in the `mgmt:` namespace that is no setting of this package: almost always a
 * typo (`mgmt:baseurl`), which would otherwise be ignored and end in "mgmt:baseUrl is not set".
 */
export function checkSettingKeys(keys: Iterable<string>): void {
  for (const key of keys) {
    if (!key.startsWith("mgmt:") || KNOWN_KEYS.includes(key)) continue;
    const guess = closestKey(key);
    throw new ConfigError(
      guess
        ? `${key} is not a pulumi-mgmt setting: did you mean \`${guess}\`? (run \`pulumi config rm ${key}\` and set ${guess})`
        : `${key} is not a pulumi-mgmt setting; the settings are ${KNOWN_KEYS.join(", ")}`,
      key,
    );
  }
}

/**
 * The known key nearest to a mistyped one: the same letters in another case, or a few edits away
 * (2, or 3 for names of 8 letters or more: `maxRetry` for `maxRetries`).
 */
function closestKey(key: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of KNOWN_KEYS) {
    const d = editDistance(known.toLowerCase(), key.toLowerCase());
    const allowed = known.length - "mgmt:".length >= 8 ? 3 : 2;
    if (d <= allowed && d < bestDistance) [best, bestDistance] = [known, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
