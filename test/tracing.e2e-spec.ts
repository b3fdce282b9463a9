import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { eventually } from './support/eventually';
import { BuiltGateway, spawnBuiltGateway } from './support/built-gateway';
import { compileGateway } from './support/compile-gateway';

const ROOT = join(__dirname, '..');

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return (
    value &&
    (value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue))
  );
};

describe('OpenTelemetry tracing (built gateway, OTLP/HTTP JSON collector)', () => {
  let collector: Server;
  const spans: OtlpSpan[] = [];
  let gateway: BuiltGateway;

  beforeAll(async () => {
    compileGateway();
    // A stand-in collector: OTLP/HTTP with JSON bodies on /v1/traces, as the exporter sends them.
    collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.url === '/v1/traces') {
          const payload = JSON.parse(body) as {
            resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
          };
          for (const resource of payload.resourceSpans)
            for (const scope of resource.scopeSpans) spans.push(...scope.spans);
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    gateway = spawnBuiltGateway({
      HOST: '127.0.0.1',
      PORT: '0',
      GATEWAY_DATA_DIR: join(mkdtempSync(join(tmpdir(), 'gateway-otel-')), 'data'),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await gateway.listening();
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await new Promise((resolve) => collector?.close(resolve));
  });

  it('exports one span per request and one per upstream attempt, with GenAI attributes', async () => {
    const url = await gateway.listening();
    const demoKey = await gateway.demoKey();
    const client = new OpenAI({ apiKey: demoKey, baseURL: `${url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: 'trace me' }],
    });

    await eventually(async () => expect(spans.length).toBeGreaterThanOrEqual(2), 10_000);
    const request = spans.find((s) => s.parentSpanId === undefined || s.parentSpanId === '')!;
    const attempt = spans.find((s) => s.parentSpanId === request.spanId)!;
    expect(request.name).toBe('chat alpha-k3');
    expect(attribute(request, 'gen_ai.operation.name')).toBe('chat');
    expect(attribute(request, 'gen_ai.request.model')).toBe('alpha-k3');
    expect(attribute(request, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0);
    expect(attribute(request, 'gen_ai.usage.output_tokens')).toBeGreaterThan(0);
    expect(attribute(request, 'http.response.status_code')).toBe(200);
    expect(attempt.traceId).toBe(request.traceId);
    expect(attribute(attempt, 'gen_ai.system')).toBe('mock');
    expect(attribute(attempt, 'gateway.deployment')).toBe('alpha-k3/0');
  });

  it('loads nothing of OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is unset', () => {
    const script = `
      const { TracingService } = require('./dist/tracing/tracing.service');
      const tracing = new TracingService({});
      const loaded = Object.keys(require.cache).filter((path) => path.includes('@opentelemetry'));
      process.stdout.write(JSON.stringify({ enabled: tracing.enabled, loaded }));`;
    const result = JSON.parse(
      execFileSync(process.execPath, ['-e', script], { cwd: ROOT }).toString(),
    ) as { enabled: boolean; loaded: string[] };
    expect(result).toEqual({ enabled: false, loaded: [] });
  });
});
