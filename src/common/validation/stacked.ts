import { applyDecorators } from '@nestjs/common';

/**
 * Several property decorators as one, listed as they would be stacked above a property.
 * Decorators apply bottom-up while applyDecorators applies its list in order, so the list is
 * reversed: the validators then run, and the first failure is reported, as with the stacked form.
 */
export function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return applyDecorators(...[...decorators].reverse());
}
