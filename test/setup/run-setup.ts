import { openRunScope } from '../support/run-scope';

/** Every project's run (unit tests too) writes its temp files in the run's scratch folder. */
export default function runSetup(): void {
  openRunScope();
}
