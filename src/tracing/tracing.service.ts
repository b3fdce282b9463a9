import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { AppConfig } from '../config/app-config';

/** One request's span, or nothing at all when tracing is off. */
export interface RequestTrace {
  /** A child span for one upstream call; `end` closes it, with the error if it failed. */
  attempt(attributes: Attributes): (error?: unknown) => void;
  end(attributes: Attributes, error?: unknown): void;
}

const SPAN_KIND_SERVER = 1;
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/**
 * Optional OpenTelemetry tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, one span per chat request
 * and one per upstream attempt, with the GenAI semantic-convention attributes, exported over
 * OTLP/HTTP. Unset, nothing of OpenTelemetry is even required (the modules load lazily below).
 */
@Injectable()
export class TracingService implements OnApplicationShutdown {
  private readonly logger = new Logger('Tracing');
  private provider?: NodeTracerProvider;
  private tracer?: Tracer;
  private api?: typeof import('@opentelemetry/api');

  constructor(config: AppConfig) {
    const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (!endpoint) return;
    /* eslint-disable @typescript-eslint/no-require-imports */
    const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
    const { NodeTracerProvider, BatchSpanProcessor } =
      require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    const { resourceFromAttributes } =
      require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
    /* eslint-enable @typescript-eslint/no-require-imports */
    // The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS, _TRACES_ENDPOINT) itself.
    this.provider = new NodeTracerProvider({
      resource: resourceFromAttributes({
        'service.name': config.OTEL_SERVICE_NAME,
      }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    });
    this.api = api;
    this.tracer = this.provider.getTracer('llm-gateway');
    this.logger.log(`exporting traces over OTLP/HTTP to ${endpoint}`);
  }

  get enabled(): boolean {
    return this.tracer !== undefined;
  }

  startRequest(attributes: Attributes): RequestTrace | undefined {
    const { tracer, api } = this;
    if (!tracer || !api) return undefined;
    const span = tracer.startSpan(
      `chat ${String(attributes['gen_ai.request.model'] ?? '')}`.trim(),
      {
        kind: SPAN_KIND_SERVER,
        attributes: { 'gen_ai.operation.name': 'chat', ...attributes },
      },
    );
    const parent = api.trace.setSpan(api.context.active(), span);
    return {
      attempt: (attemptAttributes) => {
        const child = tracer.startSpan(
          `chat ${String(attemptAttributes['gen_ai.request.model'] ?? '')}`.trim(),
          {
            kind: SPAN_KIND_CLIENT,
            attributes: { 'gen_ai.operation.name': 'chat', ...attemptAttributes },
          },
          parent,
        );
        return (error) => finish(child, {}, error);
      },
      end: (endAttributes, error) => finish(span, endAttributes, error),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    // Spans still in the batch are sent before the process exits.
    await this.provider
      ?.shutdown()
      .catch((error: Error) => this.logger.warn(`could not flush traces: ${error.message}`));
  }
}

function finish(span: Span, attributes: Attributes, error?: unknown): void {
  span.setAttributes(attributes);
  if (error !== undefined) {
    const kind =
      (error as { kind?: string; code?: string }).kind ??
      (error as { code?: string }).code ??
      (error as Error).name;
    span.setAttribute('error.type', String(kind ?? 'error'));
    span.setStatus({
      code: STATUS_ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }
  span.end();
}
