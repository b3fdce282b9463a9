/** class-transformer helpers shared by the settings classes: environment values arrive as text. */
export const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);
export const emptyToUndefined = ({ value }: { value: unknown }) =>
  value === '' ? undefined : value;
