import { GatewayException } from '../../common/errors/gateway.exception';
import { RESPONSES_COMPATIBILITY } from './compatibility-matrix';
import { RESPONSE_FIELDS } from './dto/create-response.dto';
import { bodyPipe as pipe } from './responses-body.fixture';

const byHandling = (handling: string) =>
  Object.entries(RESPONSES_COMPATIBILITY)
    .filter(([, entry]) => entry.handling === handling)
    .map(([field]) => field);

describe('the /v1/responses compatibility matrix', () => {
  it('lists exactly the fields the body parser reads as required, translated or gateway', () => {
    const read = [
      ...byHandling('required'),
      ...byHandling('translated'),
      ...byHandling('gateway'),
    ].sort();
    expect(read).toEqual([...RESPONSE_FIELDS].sort());
  });

  it.each(byHandling('drop').map((field) => [field]))('drops %s unread', (field) => {
    const request = pipe.transform({ model: 'm', input: 'Hi', [field]: { any: 'value' } });
    expect(Object.keys(request)).not.toContain(field);
  });

  it.each(byHandling('refused').map((field) => [field]))('refuses %s, naming it', (field) => {
    try {
      pipe.transform({ model: 'm', input: 'Hi', [field]: 'conv_123' });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayException);
      expect(error).toMatchObject({ code: 'invalid_parameter', param: field, status: 400 });
    }
    // null counts as absent, as for every other field.
    expect(() => pipe.transform({ model: 'm', input: 'Hi', [field]: null })).not.toThrow();
  });
});
