// request-id.usage.mts: request-id.mjs as a TypeScript SDK uses it, checked
// with its declarations (request-id.d.mts) under strict TypeScript:
//
//     npm ci && npx tsc --strict --noEmit --module nodenext --target es2022 request-id.usage.mts
//
// Each line after a @ts-expect-error comment is a misuse that must not
// compile: tsc fails if one of them does (as it would if a key were typed
// any or number).
import { requestIdKey, sameRequestId } from './request-id.mjs';

type Settle = (response: object) => void;

/** Requests in flight, keyed by requestIdKey, as Protocol._responseHandlers would be. */
const pending = new Map<string, Settle>();

/** Keeps a request pending; false when its id cannot be a request id. */
export function track(id: number | string, settle: Settle): boolean {
  const key = requestIdKey(id);
  if (key === undefined) return false;
  pending.set(key, settle);
  return true;
}

/**
 * Settles the request a response answers, reading each number id's JSON
 * text where JSON.parse gives the reviver a context (Node 21 and later).
 */
export function receive(text: string): boolean {
  const idSource = new WeakMap<object, string | undefined>();
  const response: unknown = JSON.parse(text, function (this: unknown, name: string, value: unknown, context?: { source?: string }) {
    if (name === 'id' && typeof value === 'number' && typeof this === 'object' && this !== null) idSource.set(this, context?.source);
    return value;
  });
  if (typeof response !== 'object' || response === null || !('id' in response)) return false;
  const key = requestIdKey(response.id, idSource.get(response));
  if (key === undefined) return false; // matches nothing
  const settle = pending.get(key);
  if (settle === undefined) return false;
  pending.delete(key);
  settle(response);
  return true;
}

export const initializeAnswered: boolean = sameRequestId(0, '0') && !sameRequestId(0, '');

// The declared types are exactly these, not any.
type Equals<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
export const keyIsStringOrUndefined: Equals<ReturnType<typeof requestIdKey>, string | undefined> = true;
export const sameIsBoolean: Equals<ReturnType<typeof sameRequestId>, boolean> = true;
export const idIsUnknown: Equals<Parameters<typeof requestIdKey>[0], unknown> = true;
export const sourceIsString: Equals<Parameters<typeof requestIdKey>[1], string | undefined> = true;

export function misuses(responseId: unknown): void {
  const byNumber = new Map<number, Settle>();
  // @ts-expect-error: a key is a string, not the number Number(response.id) gave
  const asNumber: number = requestIdKey(responseId);
  // @ts-expect-error: a key is not a number index into a Map<number, ...>
  byNumber.get(requestIdKey(responseId));
  // @ts-expect-error: no arithmetic on a key
  const next = requestIdKey(responseId) + 1 - 1;
  // @ts-expect-error: the key may be undefined (the id cannot be a request id)
  const length: number = requestIdKey(responseId).length;
  // @ts-expect-error: a source is the number's JSON text, not a number
  requestIdKey(1, 1);
  // @ts-expect-error: sameRequestId answers a boolean
  const same: string = sameRequestId(1, '1');
  void [asNumber, next, length, same];
}
