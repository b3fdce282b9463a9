import { GatewayException } from '../errors/gateway.exception';

/**
 * Bounds on the shape of a request body, checked before anything else walks it. A 1 MiB JSON body
 * can hold a 100,000-key object or nest half a million levels deep; class-transformer is quadratic
 * in the keys of one object and both it and class-validator recurse, so such a body would stall
 * the event loop for seconds or overflow the stack (a 500).
 */
export interface BodyShapeLimits {
  /** Objects and arrays nested inside each other, the body itself being level 1. */
  maxDepth: number;
  maxKeysPerObject: number;
  maxItemsPerArray: number;
}

export const BODY_SHAPE_LIMITS: BodyShapeLimits = {
  maxDepth: 64,
  maxKeysPerObject: 1000,
  maxItemsPerArray: 10_000,
};

/** The first place where a body exceeds its limits: `path` as in `messages[3].content`. */
export interface ShapeViolation {
  path: string;
  problem: string;
}

// Keys that would reach an object's prototype when copied with Object.assign or a merge; Nest's
// ValidationPipe deletes the same three.
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

interface Frame {
  container: Record<string, unknown> | unknown[];
  /** The keys of an object; undefined for an array, whose indexes are walked instead. */
  keys: string[] | undefined;
  /** The next child to visit; the child being looked at is `next - 1`. */
  next: number;
}

/**
 * Deletes prototype keys everywhere in `body` and returns the first place that exceeds `limits`,
 * if any. The walk keeps its own stack (at most `maxDepth` frames), so it costs time linear in the
 * size of the body and never overflows the call stack, however deep the body goes.
 */
export function sanitizeBody(
  body: unknown,
  limits: BodyShapeLimits = BODY_SHAPE_LIMITS,
): ShapeViolation | undefined {
  if (!isPlainContainer(body)) return undefined;
  const frames: Frame[] = [];
  let violation = enter(body, frames, limits);
  while (violation === undefined && frames.length > 0) {
    const frame = frames[frames.length - 1];
    const size = frame.keys ? frame.keys.length : (frame.container as unknown[]).length;
    if (frame.next >= size) {
      frames.pop();
      continue;
    }
    const child = frame.keys
      ? (frame.container as Record<string, unknown>)[frame.keys[frame.next]]
      : (frame.container as unknown[])[frame.next];
    frame.next++;
    if (isPlainContainer(child)) violation = enter(child, frames, limits);
  }
  return violation;
}

/** Deletes prototype keys everywhere in `value`, with no limits: for values already bounded. */
export function stripPrototypeKeys(value: unknown): void {
  sanitizeBody(value, {
    maxDepth: Infinity,
    maxKeysPerObject: Infinity,
    maxItemsPerArray: Infinity,
  });
}

function enter(
  container: Record<string, unknown> | unknown[],
  frames: Frame[],
  limits: BodyShapeLimits,
): ShapeViolation | undefined {
  if (frames.length + 1 > limits.maxDepth)
    return { path: pathOf(frames), problem: `is nested more than ${limits.maxDepth} levels deep` };
  if (Array.isArray(container)) {
    if (container.length > limits.maxItemsPerArray)
      return { path: pathOf(frames), problem: `has more than ${limits.maxItemsPerArray} items` };
    frames.push({ container, keys: undefined, next: 0 });
    return undefined;
  }
  for (const key of PROTOTYPE_KEYS) {
    if (Object.prototype.hasOwnProperty.call(container, key)) delete container[key];
  }
  const keys = Object.keys(container);
  if (keys.length > limits.maxKeysPerObject)
    return { path: pathOf(frames), problem: `has more than ${limits.maxKeysPerObject} keys` };
  frames.push({ container, keys, next: 0 });
  return undefined;
}

/** The path of the child each frame is looking at, e.g. `messages[3].content`. */
function pathOf(frames: Frame[]): string {
  let path = '';
  for (const frame of frames) {
    const index = frame.next - 1;
    if (!frame.keys) path += `[${index}]`;
    else path += path === '' ? frame.keys[index] : `.${frame.keys[index]}`;
  }
  return path;
}

/** Arrays and plain objects: what JSON.parse and qs build. Buffers, dates and the like are left alone. */
function isPlainContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** 400 invalid_parameter naming where a body exceeds its shape limits. */
export function shapeException(violation: ShapeViolation): GatewayException {
  return new GatewayException('invalid_parameter', {
    param: violation.path === '' ? null : violation.path,
    message: `Invalid parameter: ${violation.path === '' ? 'the request body' : violation.path} ${violation.problem}.`,
  });
}
