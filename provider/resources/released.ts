/**
 * What `destroy` says of an object the stack found rather than made (adopted, imported, or there
 * before the stack, as every account and flow control key is): the engine's own word for the step
 * is "deleted", so the run's output also says, in one line of its own, that the object was
 * released and still exists. Through the plugin the line is the resource's; through the dynamic
 * provider host, which is not told which resource a call is for, the stack's: so it names the object.
 */
import { tellEngine } from "../waitNotice";

export const releasedMessage = (what: string) =>
  `${what}: released, still exists (this stack found it rather than made it; destroy gives back what the stack changed and leaves it)`;

/** Tells the engine; resolves once it has the line (never throws). */
export function sayReleased(what: string): Promise<void> {
  return tellEngine(releasedMessage(what));
}
