/**
 * Checkpoint pacing. The WAL can only start over when a checkpoint has copied all of it and no
 * commit came in between; under steady traffic that moment never comes by itself and the WAL
 * grows without bound. So once a second the writer asks the checkpoint worker to copy it and
 * holds its own commits back meanwhile (the messages are already published; they wait in
 * memory), and the next commit then starts the WAL over. The fsyncs happen on the worker's thread.
 */
import type { Checkpointer } from "../checkpointer.ts";

/** How often the writer has the WAL checkpointed while messages keep coming. */
const CHECKPOINT_EVERY_MS = 1000;
/** Longest the writer holds commits back for a checkpoint (they wait in memory meanwhile). */
const CHECKPOINT_HOLD_MS = 250;

/** Paces checkpoints between the writer's commits; `resume` runs when commits may go on. */
export function checkpointPacing(checkpointer: Checkpointer, resume: () => void) {
  let checkpointing = false;
  let lastCheckpoint = performance.now();
  let done: Promise<void> = Promise.resolve();
  return {
    /** True while commits are held back for a checkpoint. */
    get holding(): boolean {
      return checkpointing;
    },
    /** Resolves when the checkpoint under way (if any) is over. */
    idle(): Promise<void> {
      return done;
    },
    /** After a commit: starts a checkpoint when the last one is a second old. */
    afterCommit() {
      if (checkpointing || performance.now() - lastCheckpoint < CHECKPOINT_EVERY_MS) return;
      checkpointing = true;
      let hold: ReturnType<typeof setTimeout> | undefined;
      done = new Promise<void>((resolve) => {
        const finish = () => {
          if (hold !== undefined) clearTimeout(hold);
          if (!checkpointing) return resolve();
          checkpointing = false;
          lastCheckpoint = performance.now();
          resume();
          resolve();
        };
        hold = setTimeout(finish, CHECKPOINT_HOLD_MS);
        checkpointer.checkpoint().then(finish);
      });
    },
  };
}
