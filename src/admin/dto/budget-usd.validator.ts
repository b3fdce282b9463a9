import { applyDecorators } from '@nestjs/common';
import { IsString, Matches, ValidateBy } from 'class-validator';
import { budgetToCounterUnits, MAX_BUDGET_USD } from '../../common/money/price';

const MESSAGE = `$property must be a decimal string of US dollars above 0 and at most ${MAX_BUDGET_USD}, with at most 6 decimal places, e.g. "25.50"`;

/**
 * A dollar budget as a decimal string (never a JSON number, which a client may have rounded
 * through a float): at most 6 places, above 0, and small enough that the nano-dollar limit
 * counters hold it exactly (docs/spend.md, "Exactness").
 */
export function IsBudgetUsd(): PropertyDecorator {
  return applyDecorators(
    IsString({ message: MESSAGE }),
    Matches(/^\d{1,7}(\.\d{1,6})?$/, { message: MESSAGE }),
    ValidateBy({
      name: 'isBudgetUsd',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const units = budgetToCounterUnits(value);
          return units !== null && units <= Number(MAX_BUDGET_USD) * 1e9;
        },
        defaultMessage: () => MESSAGE,
      },
    }),
  );
}
