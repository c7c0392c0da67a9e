/** How far one key moves the Splits screen's global settings (shared by its state and the key table). */
export const EVAL_SIZE_STEP = 10;
export const BUFFER_STEP_KM = 0.5;
