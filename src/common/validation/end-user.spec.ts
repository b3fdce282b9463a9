import { GatewayException } from '../errors/gateway.exception';
import { END_USER_HEADER, endUserFromHeader, endUserId } from './end-user';

function refusal(run: () => unknown): { param: unknown; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayException);
    const body = (error as GatewayException).toBody() as {
      error: { param: unknown; message: string };
    };
    return body.error;
  }
  throw new Error('accepted');
}

describe('endUserId', () => {
  it('keeps ids of up to 256 characters, counted as code points', () => {
    expect(endUserId('user-42', 'user')).toBe('user-42');
    expect(endUserId('', 'user')).toBe('');
    expect(endUserId('u'.repeat(256), 'user')).toHaveLength(256);
    // 256 emoji are 512 UTF-16 units but 256 characters.
    expect(endUserId('😀'.repeat(256), 'user')).toHaveLength(512);
    expect(endUserId('zoë@example.com', 'user')).toBe('zoë@example.com');
  });

  it.each([
    ['257 characters', 'u'.repeat(257), 'at most 256 characters'],
    ['a NUL', 'a\u0000b', 'control characters'],
    ['a line break', 'a\nb', 'control characters'],
    ['a C1 control', 'a\u0085b', 'control characters'],
    ['DEL', 'a\u007f', 'control characters'],
    ['a lone surrogate', 'a\ud800b', 'lone surrogates'],
  ])('refuses %s, naming the field', (_case, value, problem) => {
    const error = refusal(() => endUserId(value, 'metadata.user_id'));
    expect(error.param).toBe('metadata.user_id');
    expect(error.message).toContain(problem);
  });

  it('refuses what is not a string', () => {
    expect(refusal(() => endUserId(42, 'user')).message).toContain('must be a string');
  });
});

describe('endUserFromHeader', () => {
  it('reads no header as none, ASCII as it is, UTF-8 bytes as their characters', () => {
    expect(endUserFromHeader(undefined)).toBeUndefined();
    expect(endUserFromHeader('customer-7')).toBe('customer-7');
    // Node hands header bytes over as Latin-1: "zoë" sent as UTF-8 arrives as "zoÃ«".
    expect(endUserFromHeader(Buffer.from('zoë', 'utf8').toString('latin1'))).toBe('zoë');
    // Bytes that are not UTF-8 stay as Latin-1 read them.
    expect(endUserFromHeader('zo\u00eb')).toBe('zo\u00eb');
  });

  it('names the header when refusing it', () => {
    expect(refusal(() => endUserFromHeader('h'.repeat(257))).param).toBe(END_USER_HEADER);
  });
});
