import { applyDecorators } from '@nestjs/common';
import { IsString, Matches, ValidateBy } from 'class-validator';
import { BUDGET_USD_PATTERN, isBudgetUsd, MAX_BUDGET_USD } from '../../common/money/price';

const MESSAGE = `$property must be a decimal string of US dollars above 0 and at most ${MAX_BUDGET_USD}, with at most 6 decimal places, e.g. "25.50"`;

/**
 * A dollar budget as a decimal string (never a JSON number, which a client may have rounded
 * through a float): at most 6 places, above 0, and small enough that the nano-dollar limit
 * counters hold it exactly (docs/spend.md, "Exactness").
 */
export function IsBudgetUsd(): PropertyDecorator {
  return applyDecorators(
    IsString({ message: MESSAGE }),
    Matches(BUDGET_USD_PATTERN, { message: MESSAGE }),
    ValidateBy({
      name: 'isBudgetUsd',
      validator: {
        validate: (value: unknown) => isBudgetUsd(value),
        defaultMessage: () => MESSAGE,
      },
    }),
  );
}
