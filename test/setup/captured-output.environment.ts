import { TestEnvironment } from 'jest-environment-node';
import type { Circus } from '@jest/types';
import type { CapturedOutput } from './captured-output';

/**
 * Node's test environment, telling captured-output.ts when a test is over: what a failed test (or
 * a failed hook) printed is shown, what a passing test printed is dropped.
 */
export default class CapturedOutputEnvironment extends TestEnvironment {
  private get output(): CapturedOutput | undefined {
    return (this.global as { __capturedOutput?: CapturedOutput }).__capturedOutput;
  }

  handleTestEvent(event: Circus.Event): void {
    const output = this.output;
    if (!output) return;
    if (event.name === 'test_done') {
      if (event.test.errors.length > 0)
        output.show(`output of the failed test "${event.test.name}"`);
      else output.drop();
    } else if (event.name === 'hook_failure') {
      output.show(`output up to the failed ${event.hook.type} hook`);
    } else if (event.name === 'run_finish') {
      output.drop();
      output.restore();
    }
  }

  override async teardown(): Promise<void> {
    this.output?.restore();
    await super.teardown();
  }
}
