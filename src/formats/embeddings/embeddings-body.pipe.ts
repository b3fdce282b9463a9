import { Injectable, PipeTransform } from '@nestjs/common';
import { parseEmbeddingsBody, type EmbeddingsBody } from './embeddings.request';

/** The embeddings body, read by hand (embeddings.request.ts), not by the global ValidationPipe. */
@Injectable()
export class EmbeddingsBodyPipe implements PipeTransform<unknown, EmbeddingsBody> {
  transform(body: unknown): EmbeddingsBody {
    return parseEmbeddingsBody(body);
  }
}
