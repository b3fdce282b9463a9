// Gemini's thinking models return a `thoughtSignature` next to a functionCall and (Gemini 3) refuse
// the next turn if the call comes back without it. OpenAI's format has no place for it except the
// tool-call id, which clients echo verbatim: the signature rides there, base64url-encoded so the id
// stays within [A-Za-z0-9_-] (what Anthropic accepts too, should the conversation fail over).

const MARK = '_sig_';

export function withThoughtSignature(id: string, signature: string | undefined): string {
  return signature ? `${id}${MARK}${Buffer.from(signature, 'base64').toString('base64url')}` : id;
}

export function thoughtSignatureOf(id: string): string | undefined {
  const at = id.indexOf(MARK);
  if (at < 0) return undefined;
  const encoded = id.slice(at + MARK.length);
  return encoded ? Buffer.from(encoded, 'base64url').toString('base64') : undefined;
}
