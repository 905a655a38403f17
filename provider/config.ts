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
        throw new ConfigError(`${keys.config} (or ${keys.env}) must be a whole number of at least 0, got "${raw}"`);
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
      throw new ConfigError(`${keys.config} (or ${keys.env}) must be an http:// or https:// address, got "${url}"`);
    }
  }
  if (settings.regionalMessagingUrl && !settings.regionalMessagingUrl.includes("{region}")) {
    throw new ConfigError(
      `mgmt:regionalMessagingUrl (or MGMT_REGIONAL_MESSAGING_URL) must contain the placeholder {region}, got "${settings.regionalMessagingUrl}"`,
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
    throw new ConfigError(`${keys.config} is not set (needed to ${purpose}): run \`${how}\` or set ${keys.env}`);
  }
  return value;
}
