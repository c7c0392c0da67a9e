/**
 * The contracts between the training pieces: the pre-flight's verdicts (what `train preflight`
 * prints and `train launch` gates on) and the structured lines the Python trainer writes, one JSON
 * object per line, to its stdout and to `<output_dir>/progress.jsonl` (besides TRL's own output).
 */

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface PreflightCheck {
  /** Stable id, e.g. `gpu.memory`, `python.trl`, `env.sessions`. */
  id: string;
  status: CheckStatus;
  /** What was found, e.g. "NVIDIA A100-SXM4-80GB, 81,920 MiB". Never a secret's value. */
  message: string;
  /** What to change when the status is not pass. */
  fix?: string;
  /** Lines that show the working, e.g. the memory gate's arithmetic. */
  detail?: string[];
}

export interface PreflightReport {
  checks: PreflightCheck[];
  /** No check failed. */
  ok: boolean;
}

/** Every line the trainer writes for geolab carries `"geolab": <kind>`. */
export type TrainerEvent =
  | { geolab: 'phase'; phase: 'starting' | 'loading' | 'training' | 'saving' | 'done' | 'failed'; time: string; message?: string }
  | { geolab: 'resume'; time: string; checkpoint: string; step: number }
  | {
      geolab: 'step';
      time: string;
      step: number;
      max_steps: number;
      /** TRL's logged metrics for this step as it named them (loss, reward, reward_std,
       * frac_reward_zero_std, entropy, completions/mean_length, completions/clipped_ratio, ...). */
      metrics: Record<string, number>;
      elapsed_s: number;
    }
  | { geolab: 'checkpoint'; time: string; step: number; path: string };
