import Ajv2020 from 'ajv/dist/2020';

// The OpenAPI document's schemas as JSON Schema validators, for the unit and e2e specs that check
// the document against what the parsers accept and the gateway answers.

export interface SchemaValidator {
  /** Whether `value` is valid against the named component schema. */
  (name: string, value: unknown): boolean;
  /** `value` valid, or an error naming the schema, ajv's reasons and the value. */
  assert(name: string, value: unknown): void;
}

export function schemaValidator(components: { schemas: object }): SchemaValidator {
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema({ $id: 'doc', components });
  const compiled = (name: string) => {
    const check = ajv.getSchema(`doc#/components/schemas/${name}`);
    if (!check) throw new Error(`the document has no schema ${name}`);
    return check;
  };
  const validate = (name: string, value: unknown) => compiled(name)(value) as boolean;
  return Object.assign(validate, {
    assert(name: string, value: unknown) {
      const check = compiled(name);
      if (!check(value))
        throw new Error(
          `${name}: ${ajv.errorsText(check.errors)} in ${JSON.stringify(value).slice(0, 500)}`,
        );
    },
  });
}
