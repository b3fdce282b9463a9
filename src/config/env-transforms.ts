import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { stacked } from '../common/validation/stacked';

/** class-transformer helpers shared by the settings classes: environment values arrive as text. */
export const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);
export const emptyToUndefined = ({ value }: { value: unknown }) =>
  value === '' ? undefined : value;

/** An integer setting from `min` to `max`, given as text in the environment. */
export function IntSetting(min: number, max: number): PropertyDecorator {
  return stacked(Transform(toInt) as PropertyDecorator, IsInt(), Min(min), Max(max));
}
