/**
 * Configuration of the provider, resolved at run time (never captured in a serialized provider):
 * Pulumi config `mgmt:*` first, then the `MGMT_*` environment variables (contract "Names").
 */
import { UserError } from "./userError";
export interface Settings {
  baseUrl?: string;
  username?: string;
  password?: string;
  messagingUrl?: string;
  regionalMessagingUrl?: string;
  messagingToken?: string;
  /**
   * The identity (as shown in an identity error) that this stack deliberately moves away from:
   * objects not visible under the new identity are then released from the stack instead of
   * failing the run. See resources/identity.ts.
   */
  movedFrom?: string;
  /** Per attempt: connect plus answer headers and body. */
  timeoutMs: number;
  connectTimeoutMs: number;
  /** All attempts of one operation together. */
  totalTimeoutMs: number;
  maxRetries: number;
}

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
} as const;

export type SettingName = keyof typeof SETTINGS_KEYS;
type StringSetting = Exclude<SettingName, "timeoutMs" | "connectTimeoutMs" | "totalTimeoutMs" | "maxRetries">;
type NumberSetting = Exclude<SettingName, StringSetting>;

const NUMBER_DEFAULTS: Record<NumberSetting, number> = {
  timeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 120_000,
  maxRetries: 5,
};

export class ConfigError extends UserError {
  override readonly name = "ConfigError";
  /** The config key the message is about, e.g. "mgmt:baseUrl". */
  constructor(message: string, readonly setting?: string) {
    super(message);
  }
}

/** A lookup of Pulumi config by full key ("mgmt:baseUrl"). */
export type ConfigSource = (key: string) => string | undefined;

export function resolveSettings(config: ConfigSource = () => undefined, env: NodeJS.ProcessEnv = process.env): Settings {
  const pick = (name: SettingName): string | undefined => {
    const keys = SETTINGS_KEYS[name];
    const value = config(keys.config) ?? env[keys.env];
    return value === undefined || value === "" ? undefined : value;
  };
  const settings: Partial<Settings> = {};
  for (const name of Object.keys(SETTINGS_KEYS) as SettingName[]) {
    const raw = pick(name);
    if (name in NUMBER_DEFAULTS) {
      const n = raw === undefined ? NUMBER_DEFAULTS[name as NumberSetting] : Number(raw);
      if (!Number.isInteger(n) || n < 0) {
        const keys = SETTINGS_KEYS[name];
        throw new ConfigError(`${keys.config} (or ${keys.env}) must be a whole number of at least 0, got "${raw}"`, keys.config);
      }
      (settings as Record<string, number>)[name] = n;
    } else if (raw !== undefined) {
      (settings as Record<string, string>)[name] = raw;
    }
  }
  for (const name of ["baseUrl", "messagingUrl", "regionalMessagingUrl"] as const) {
    const url = settings[name];
    if (url === undefined) continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(url.replace("{region}", "region"));
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      const keys = SETTINGS_KEYS[name];
      throw new ConfigError(`${keys.config} (or ${keys.env}) must be an http:// or https:// address, got "${url}"`, keys.config);
    }
  }
  if (settings.regionalMessagingUrl && !settings.regionalMessagingUrl.includes("{region}")) {
    throw new ConfigError(
      `mgmt:regionalMessagingUrl (or MGMT_REGIONAL_MESSAGING_URL) must contain the placeholder {region}, got "${settings.regionalMessagingUrl}"`,
      "mgmt:regionalMessagingUrl",
    );
  }
  return settings as Settings;
}

/** The value of a setting an operation cannot do without, or an error that names where to set it. */
export function requireSetting<K extends StringSetting>(settings: Settings, name: K, purpose: string): string {
  const value = settings[name];
  if (value === undefined) {
    const keys = SETTINGS_KEYS[name];
    const how = "secret" in keys ? `pulumi config set --secret ${keys.config} ...` : `pulumi config set ${keys.config} ...`;
    throw new ConfigError(`${keys.config} is not set (needed to ${purpose}): run \`${how}\` or set ${keys.env}`, keys.config);
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
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
