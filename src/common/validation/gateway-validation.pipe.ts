import { ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { sanitizeBody, shapeException, stripPrototypeKeys } from './body-shape';
import { validationExceptionFactory } from './validation-exception.factory';

/**
 * The global ValidationPipe, bounded: a value is checked against BODY_SHAPE_LIMITS before
 * class-transformer and class-validator (both recursive, class-transformer quadratic in an
 * object's keys) see it, and prototype keys are stripped by an iterative walk instead of Nest's
 * recursive one, which overflows the stack on a deeply nested body.
 */
@Injectable()
export class GatewayValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      transform: true,
      forbidUnknownValues: false,
      exceptionFactory: validationExceptionFactory,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.metatype && this.toValidate(metadata)) {
      const violation = sanitizeBody(value);
      if (violation) throw shapeException(violation);
    }
    return super.transform(value, metadata);
  }

  protected override stripProtoKeys(value: unknown): void {
    stripPrototypeKeys(value);
  }
}
