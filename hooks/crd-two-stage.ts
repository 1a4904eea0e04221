/**
 * `crd_two_stage`: a unit that installs CustomResourceDefinitions and also creates resources of those kinds cannot be
 * planned in one go (the plan of a custom resource needs its CRD in the cluster). Before the unit's apply, this hook
 * applies only the configured CRD resources (`-target=<address>` for each of `targets`); the walk then applies the
 * whole unit. Both applies go into the unit's log under their own headers. Once stage 1 finished, the state records
 * it, and `bootstrap --resume` starts the unit at stage 2.
 */
import type { HookFactory } from '../engine/hooks.js';

export const crdTwoStage: HookFactory<'crd_two_stage'> = (settings) => {
  const stageOne = settings.targets.map((address) => `-target=${address}`);
  return {
    name: 'crd_two_stage',
    applies: [stageOne],
    beforeUnit: async (ctx) => {
      const stage = await ctx.apply(stageOne, `crd_two_stage stage 1 of 2: apply only ${settings.targets.join(', ')}`);
      if (!stage.ok) return stage;
      ctx.log(`# crd_two_stage stage 2 of 2: the whole unit`);
      return { ok: true, value: `stage 1 applied ${settings.targets.join(', ')}` };
    },
  };
};
