// Helpers of the specs that read /v1/responses bodies: the body pipe, a body parsed with a model
// and an input filled in, and the refusal of a body with its code and param.

import { GatewayException } from '../../common/errors/gateway.exception';
import { ResponsesBodyPipe } from './responses-body.pipe';
import type { CreateResponseDto } from './responses.types';

export const bodyPipe = new ResponsesBodyPipe();

/** `body` with `model: alpha-k3` and `input: Hi` unless it sets them, through the body pipe. */
export const parseBody = (body: Record<string, unknown>): CreateResponseDto =>
  bodyPipe.transform({ model: 'alpha-k3', input: 'Hi', ...body });

/** The GatewayException the pipe refuses `body` with; fails the test when it is accepted. */
export function refusal(body: unknown): GatewayException {
  try {
    bodyPipe.transform(body);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayException);
    return error as GatewayException;
  }
  throw new Error('the body was accepted');
}

/** `body` (with model and input filled in) refused with a 400 of this code, naming `param`. */
export function expectRefused(
  body: Record<string, unknown>,
  param: string,
  code = 'invalid_parameter',
): GatewayException {
  const error = refusal({ model: 'alpha-k3', input: 'Hi', ...body });
  expect({ code: error.code, param: error.param, status: error.status }).toEqual({
    code,
    param,
    status: 400,
  });
  return error;
}
