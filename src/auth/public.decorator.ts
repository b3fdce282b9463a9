import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'gateway:isPublic';

/** Marks a route that needs no virtual key (health checks, the admin API with its own guard). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
