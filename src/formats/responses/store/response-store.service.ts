import { Injectable, Logger } from '@nestjs/common';
import { GatewayException } from '../../../common/errors/gateway.exception';
import { AppConfig } from '../../../config/app-config';
import { withItemIds } from '../response-ids';
import type { CreateResponseDto, InputItem, ResponseObject } from '../responses.types';
import { inputItemsPage, type InputItemList, type InputItemsQuery } from './input-items-page';
import { ResponseStoreRepository } from './response-store.repository';
import { StoreWrites } from './store-writes';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The response store (docs/responses.md): what a request continues from, and what GET, DELETE and
 * input_items read. Only the key that created a response sees it; to any other key it does not
 * exist. Stored content is never logged: failures are logged by their error code alone.
 */
@Injectable()
export class ResponseStore {
  private readonly logger = new Logger('ResponseStore');
  /** RESPONSES_STORE=off: nothing is stored and nothing can be read. */
  readonly enabled: boolean;
  readonly retentionDays: number;
  private readonly writes: StoreWrites;

  constructor(
    private readonly repository: ResponseStoreRepository,
    config: AppConfig,
  ) {
    this.enabled = config.RESPONSES_STORE === 'on';
    this.retentionDays = config.RESPONSES_RETENTION_DAYS;
    this.writes = new StoreWrites((rows) => this.repository.insertMany(rows));
  }

  /**
   * Whether the response to `request` is to be stored: `store` defaults to true, as on OpenAI.
   * With the store off, a request that needs it is refused naming the field, so that no client
   * believes a conversation is kept when it is not.
   */
  storesFor(request: CreateResponseDto): boolean {
    if (this.enabled) return request.store ?? true;
    if (request.store === true) throw storeDisabled('store');
    if (request.previous_response_id !== undefined) throw storeDisabled('previous_response_id');
    return false;
  }

  /**
   * The conversation previous_response_id stands for: every response of its chain, oldest first,
   * its input items then its output items. Any response of the chain gone is a 404.
   */
  async history(request: CreateResponseDto, keyId: string): Promise<InputItem[]> {
    const id = request.previous_response_id;
    if (id === undefined) return [];
    const links = await this.read(() => this.repository.chain(id, keyId, this.since()));
    if (links.length === 0 || links[0].previousResponseId !== null)
      throw notFound(id, 'previous_response_id');
    return links.flatMap((link) => [...link.inputItems, ...link.outputItems]);
  }

  /**
   * Stores a finished response with the input it was given. Resolves false instead of failing:
   * the client still gets its answer, which then says `store: false`.
   */
  async save(
    keyId: string,
    request: CreateResponseDto,
    response: ResponseObject,
  ): Promise<boolean> {
    const { output, ...settings } = response;
    try {
      await this.writes.write({
        id: response.id,
        keyId,
        previousResponseId: request.previous_response_id ?? null,
        inputItems: withItemIds(request.input),
        outputItems: output,
        settings,
      });
      return true;
    } catch (error) {
      this.logger.error(`could not store response ${response.id}: ${errorCode(error)}`);
      return false;
    }
  }

  async retrieve(id: string, keyId: string): Promise<ResponseObject> {
    const row = await this.found(id, keyId);
    return { ...row.settings, output: row.outputItems };
  }

  async inputItems(id: string, keyId: string, query: InputItemsQuery): Promise<InputItemList> {
    const row = await this.found(id, keyId);
    return inputItemsPage(row.inputItems, query);
  }

  async delete(
    id: string,
    keyId: string,
  ): Promise<{ id: string; object: 'response'; deleted: true }> {
    if (!this.enabled) throw notFound(id);
    const deleted = await this.read(() => this.repository.delete(id, keyId, this.since()));
    if (!deleted) throw notFound(id);
    return { id, object: 'response', deleted: true };
  }

  /** Responses created before this have expired (RESPONSES_RETENTION_DAYS; 0 keeps them). */
  since(now = Date.now()): Date {
    return new Date(this.retentionDays > 0 ? now - this.retentionDays * DAY_MS : 0);
  }

  private async found(id: string, keyId: string) {
    if (!this.enabled) throw notFound(id);
    const row = await this.read(() => this.repository.find(id, keyId, this.since()));
    if (!row) throw notFound(id);
    return row;
  }

  /** A database failure is a 503 the client may retry, not a 500; its message is not logged. */
  private async read<T>(query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      this.logger.error(`response store read failed: ${errorCode(error)}`);
      throw new GatewayException('service_unavailable', {
        message: 'The response store is unavailable. Retry later.',
        cause: error,
      });
    }
  }
}

function notFound(id: string, param: string | null = null): GatewayException {
  return new GatewayException('response_not_found', {
    param,
    message: `No response with id '${id.slice(0, 100)}' was found.`,
  });
}

function storeDisabled(param: string): GatewayException {
  return new GatewayException('store_disabled', {
    param,
    message: `${param} needs the response store, which is turned off on this gateway (RESPONSES_STORE=off).`,
  });
}

/**
 * What may be logged of a store failure: Prisma's and Postgres's error codes. Their messages can
 * quote the values of the statement, which here are the conversation.
 */
function errorCode(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return [name, code].filter((part) => typeof part === 'string').join(' ') || 'unknown error';
}
