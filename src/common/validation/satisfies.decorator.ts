import { registerDecorator } from 'class-validator';

/** A one-off validation rule for fields whose type is a union class-validator cannot express. */
export function Satisfies(predicate: (value: unknown) => boolean, message: string): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'satisfies',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `$property ${message}` },
      validator: { validate: predicate },
    });
}
