// Helpers of the ResponseEvents specs: an encoder for a request body, and its frames parsed.

import type { DeploymentConfig } from '../../config/gateway-config.types';
import type { CanonicalDelta } from '../../pipeline/canonical';
import { responseSkeleton } from './responses.response';
import { ResponseEvents } from './responses.stream';
import { bodyPipe as pipe } from './responses-body.fixture';

export interface WireEvent {
  type: string;
  sequence_number: number;
  [field: string]: any;
}

export const USAGE = { promptTokens: 20, completionTokens: 7, cachedTokens: 4, reasoningTokens: 2 };
/** The deployment a stream ended on; the encoder does not read it. */
export const DEPLOYMENT = { name: 'test-deployment' } as DeploymentConfig;

export function encoder(body: Record<string, unknown> = {}, persist = jest.fn(async () => true)) {
  const request = pipe.transform({ model: 'alias-model', input: 'Hi', ...body });
  const skeleton = responseSkeleton(request, {
    id: 'resp_test',
    createdAt: 1_700_000_000,
    model: 'alias-model',
    store: request.store ?? true,
  });
  const names = new Set(request.tools.filter((t) => t.type === 'custom').map((t) => t.name));
  return { events: new ResponseEvents({ skeleton, customNames: names, persist }), persist };
}

/** Parses frames, checking each is `event: <type>` + `data: <json>` with the same type. */
export function parse(frames: string): WireEvent[] {
  return frames
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const [eventLine, dataLine, ...rest] = frame.split('\n');
      expect(rest).toEqual([]);
      const data = JSON.parse(dataLine.slice('data: '.length)) as WireEvent;
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
}

export async function run(
  batches: CanonicalDelta[][],
  body: Record<string, unknown> = {},
  persist?: jest.Mock,
) {
  const { events, persist: stored } = encoder(body, persist);
  let frames = '';
  for (const batch of batches) frames += events.encode(batch);
  frames += await events.end({ usage: USAGE, deployment: DEPLOYMENT });
  const wire = parse(frames);
  expect(wire.map((event) => event.sequence_number)).toEqual(wire.map((_, index) => index));
  return { wire, types: wire.map((event) => event.type), last: wire[wire.length - 1], stored };
}

export const text = (content: string, finishReason?: 'stop' | 'length'): CanonicalDelta => ({
  type: 'delta',
  content,
  ...(finishReason ? { finishReason } : {}),
});
