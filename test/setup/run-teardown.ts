import { closeRunScope } from '../support/run-scope';

/** Removes the run's scratch folder, whether its tests passed or not. */
export default function runTeardown(): void {
  closeRunScope();
}
