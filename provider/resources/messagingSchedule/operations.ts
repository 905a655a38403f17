/**
 * MessagingSchedule: one schedule of a messaging account, made by this stack.
 *
 * - The schedule's id is this package's choice (`check` picks it once and keeps it): every create
 *   and every change sends it, and the service replaces the settings of the schedule of that id in
 *   place, so no change replaces the resource and a resend never duplicates. A schedule someone
 *   else made (another id) is never touched, whatever its destination and cron.
 * - A create whose answer is ambiguous (no answer, a 5xx) is looked up by that id: found, it was
 *   made; not found, it is sent again.
 * - `paused` declared is kept in place (a replace keeps the pause, so it is set after). Left out,
 *   a pause someone made stays: nothing reads or changes it.
 * - Refresh reads the declared settings back; a 404 drops the schedule (under the identity guard).
 *   Destroy deletes a schedule this stack created; an imported one is released, never deleted.
 * - More schedules than the account's `max_schedules` answer 412, and the error says so.
 */
import { randomBytes } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../../api/client";
import { AmbiguousError, ifFound, isNotFound } from "../../api/errors";
import type { ScheduleRecord } from "../../api/scheduleSchemas";
import type { Api } from "../../api/endpoints";
import { apiClient } from "../../runtime";
import { withoutUndefined } from "../../withoutUndefined";
import { isNewResource } from "../before";
import { believeGone, latestToken, type ManagedObject } from "../identity";
import { isImport, regionAndName } from "../imported";
import { act, regionProblem, scheduleLabel } from "../messagingActions";
import { sayReleased } from "../released";
import { actingWith, assertSameAccount, judgedAs, revokedTokenError, type Acting } from "../tokenAccount";
import { checkWithSettings, isUnknown, readInputs } from "../validation";
import { ScheduleInputs, scheduleResourceId, type ScheduleOutputs } from "./schema";
import {
  SETTING_NAMES,
  changedSettings,
  observedSettings,
  refreshedSettings,
  wireSettings,
  type Declared,
} from "./settings";

/** The API areas its calls go to (its declaration's `apis`). */
export const APIS: readonly Api[] = ["regional"];

/** A new schedule's id: random, so that two stacks (or two resources) never share one. */
const newScheduleId = () => `pulumi-${randomBytes(8).toString("hex")}`;

type Target = { region: ScheduleInputs["region"]; token?: string; scheduleId: string };

const declaredOf = (i: Partial<ScheduleInputs>): Declared =>
  Object.fromEntries(SETTING_NAMES.map((k) => [k, i[k]])) as Declared;

function managedSchedule(client: MgmtClient, props: ScheduleOutputs, acting: Acting): ManagedObject {
  return {
    what: `${scheduleLabel(props.scheduleId!)} in ${props.region}`,
    managedBy: props.managedBy,
    asking: judgedAs(acting, props),
    settings: client.settings,
  };
}

const schedules = (client: MgmtClient, t: Target) => client.schedules({ region: t.region, token: t.token });

/**
 * Sends the settings under this package's id. After an ambiguous answer the schedule is looked up
 * by that id: there, the create took effect; absent, it is sent again (a resend with the id
 * replaces in place, so it can never make a second schedule).
 */
async function put(client: MgmtClient, t: Target, settings: Declared): Promise<void> {
  const label = scheduleLabel(t.scheduleId);
  const send = () => schedules(client, t).create(settings.destination, wireSettings(settings, t.scheduleId));
  try {
    await act(label, "create or update", t, send, "schedules");
  } catch (err) {
    if (!(err instanceof AmbiguousError)) throw err;
    const found = await ifFound(schedules(client, t).get(t.scheduleId)).catch(() => undefined);
    if (found) return;
    await act(label, "create or update", t, send, "schedules");
  }
}

/** Puts the declared pause in place when it differs from the schedule's; returns the record after. */
async function settlePause(
  client: MgmtClient,
  t: Target,
  paused: boolean | undefined,
  record: ScheduleRecord,
): Promise<ScheduleRecord> {
  if (paused === undefined || (record.isPaused ?? false) === paused) return record;
  const label = scheduleLabel(t.scheduleId);
  const s = schedules(client, t);
  await act(label, paused ? "pause" : "resume", t, () => (paused ? s.pause(t.scheduleId) : s.resume(t.scheduleId)));
  return { ...record, isPaused: paused };
}

const times = (r: ScheduleRecord) => ({ nextScheduleTime: r.nextScheduleTime, lastScheduleTime: r.lastScheduleTime });

export const messagingScheduleOperations: pulumi.dynamic.ResourceProvider<ScheduleInputs, ScheduleOutputs> = {
  async check(olds, news) {
    // The id is chosen once and kept: every later create or change of this resource sends it.
    const withId = { ...news, scheduleId: news.scheduleId ?? olds?.scheduleId ?? newScheduleId() };
    const result = checkWithSettings(ScheduleInputs, withId, APIS, news.token);
    if (result.failures?.length) return result;
    const failures = [];
    if (typeof news.cron === "string" && news.cron.startsWith("CRON_TZ=") && news.timeZone !== undefined)
      failures.push({
        property: "timeZone",
        reason: "timeZone: give the time zone here or as CRON_TZ= in cron, not both",
      });
    if (failures.length > 0) return { inputs: result.inputs, failures };
    // A new schedule, or one moved to another region or token: one read at the declared region's
    // address refuses another region's token at preview. An unchanged one costs no call.
    const { region, token } = news;
    const moved = isNewResource(olds) || olds.region !== region || olds.token !== token;
    if (!moved || [region, token].some(isUnknown)) return result;
    const failure = await regionProblem(apiClient(), scheduleLabel(withId.scheduleId), { region, token });
    return failure ? { inputs: result.inputs, failures: [failure] } : result;
  },

  // Declared state against recorded state (refresh keeps it current): no call.
  async diff(_id, olds: ScheduleOutputs, news: ScheduleInputs) {
    await assertSameAccount(apiClient(), scheduleLabel(olds.scheduleId!), olds, news.token);
    // Another region is another account's service: a new schedule there.
    const replaces = olds.region !== news.region ? ["region"] : [];
    const changes =
      replaces.length > 0 ||
      changedSettings(declaredOf(olds), declaredOf(news)).length > 0 ||
      (news.paused !== undefined && olds.paused !== news.paused) ||
      olds.token !== news.token;
    return { changes, replaces, deleteBeforeReplace: true };
  },

  async create(news: ScheduleInputs) {
    const inputs = ScheduleInputs.parse(news);
    const client = apiClient();
    const scheduleId = inputs.scheduleId ?? newScheduleId();
    const t = { region: inputs.region, token: inputs.token, scheduleId };
    const acting = await actingWith(client, scheduleLabel(scheduleId), {}, inputs.token);
    await put(client, t, declaredOf(inputs));
    const label = scheduleLabel(scheduleId);
    const record = await settlePause(
      client,
      t,
      inputs.paused,
      await act(label, "read", t, () => schedules(client, t).get(scheduleId)),
    );
    return {
      id: scheduleResourceId({ region: inputs.region, scheduleId }),
      outs: withoutUndefined({
        ...inputs,
        scheduleId,
        paused: inputs.paused,
        created: true,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
        ...times(record),
      }),
    };
  },

  async read(id, stored) {
    // Imported (`pulumi import`): the schedule its id names, `<region>/<scheduleId>`, with
    // mgmt:messagingToken; not this stack's creation, so destroy releases it.
    const imported = isImport(stored);
    const props: ScheduleOutputs = imported
      ? (({ region, name }) => ({ region, scheduleId: name }) as ScheduleOutputs)(regionAndName(id, "schedule"))
      : stored!;
    const client = apiClient();
    const label = scheduleLabel(props.scheduleId!);
    const acting = await actingWith(client, label, props, props.token);
    const t = { region: props.region, token: acting.token, scheduleId: props.scheduleId! };
    const record = await ifFound(schedules(client, t).get(t.scheduleId)).catch((err: unknown) => {
      throw revokedTokenError(err, label, props.region, acting, props, client.settings);
    });
    if (!record) {
      believeGone(managedSchedule(client, props, acting));
      return {};
    }
    const settings = imported ? observedSettings(record, true) : refreshedSettings(declaredOf(props), record);
    // The pause is recorded where it is declared (an import declares what it found).
    const paused = imported || props.paused !== undefined ? (record.isPaused ?? false) : undefined;
    const token = props.token === undefined ? undefined : acting.token;
    const outs = withoutUndefined({
      ...props,
      ...settings,
      paused,
      token,
      managedBy: acting.managedBy,
      tokenFingerprint: acting.tokenFingerprint,
      ...times(record),
    });
    return {
      id,
      props: outs,
      ...(imported && {
        inputs: readInputs<ScheduleOutputs>(
          withoutUndefined({ region: props.region, scheduleId: props.scheduleId, ...settings, paused }),
        ),
      }),
    };
  },

  async update(_id, olds: ScheduleOutputs, news: ScheduleInputs) {
    const inputs = ScheduleInputs.parse(news);
    const client = apiClient();
    const scheduleId = olds.scheduleId!;
    const label = scheduleLabel(scheduleId);
    const acting = await actingWith(client, label, olds, inputs.token);
    const t = { region: inputs.region, token: acting.token, scheduleId };
    const guard = (err: unknown): never => {
      throw revokedTokenError(err, label, olds.region, acting, olds, client.settings);
    };
    // Settings go in one replace of the same schedule (its pause stays); a pause alone needs none.
    if (changedSettings(declaredOf(olds), declaredOf(inputs)).length > 0 || olds.token !== inputs.token)
      await put(client, t, declaredOf(inputs)).catch(guard);
    const current = await act(label, "read", t, () => schedules(client, t).get(scheduleId)).catch(guard);
    const record = await settlePause(client, t, inputs.paused, current).catch(guard);
    return {
      outs: withoutUndefined({
        ...inputs,
        scheduleId,
        paused: inputs.paused,
        created: olds.created,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
        ...times(record),
      }),
    };
  },

  async delete(_id, stored: ScheduleOutputs) {
    const props = { ...stored, token: latestToken(stored.token) };
    const client = apiClient();
    const label = scheduleLabel(props.scheduleId!);
    const acting = await actingWith(client, label, stored, props.token);
    const t = { region: props.region, token: acting.token, scheduleId: props.scheduleId! };
    if (!props.created) {
      await sayReleased(label);
      return;
    }
    try {
      await act(label, "delete", t, () => schedules(client, t).delete(t.scheduleId));
    } catch (err) {
      if (!isNotFound(err)) throw revokedTokenError(err, label, props.region, acting, stored, client.settings);
      believeGone(managedSchedule(client, props, acting));
    }
  },
};
