// Core: the reinvocation of the mutating admission chain, as kube-apiserver 1.32 does it (apiserver pkg/admission/
// reinvocation.go, plugin/webhook/mutating/reinvocationcontext.go, plugin/policy/mutating/reinvocationcontext.go).
// The chain's mutating half runs once; when any reinvocable plugin (MutatingAdmissionPolicy, mutating webhooks)
// changed the object it runs a second and last time — the built-in plugins again, then only the policies and
// webhooks with `reinvocationPolicy: IfNeeded` that ran before a later change. A plugin that finds the object
// changed since its own last output (something after it, or a built-in plugin's second run, changed it) also
// re-runs those of its own that ran after its last change. Pure: the drivers (worker/admission-webhooks.ts) keep
// one ReinvocationContext per request and hand it to each plugin in both rounds.

import { sameJson } from '../object-meta';

/** One plugin's part (webhookReinvokeContext, policyReinvokeContext): keyed by webhook UID or policy invocation. */
export class PluginReinvocation {
  private lastOutput: unknown = null;
  private previouslyInvoked = new Set<string>();
  private readonly reinvoke = new Set<string>();

  shouldReinvoke(key: string): boolean {
    return this.reinvoke.has(key);
  }

  /** apiequality.Semantic.DeepEqual of the plugin's last output and the object it is handed now. */
  outputChangedSinceLastInvocation(object: unknown): boolean {
    return !sameJson(this.lastOutput ?? null, object ?? null);
  }

  setLastInvocationOutput(object: unknown): void {
    this.lastOutput = object ?? null;
  }

  /** An IfNeeded invocation ran: a later change makes it run again. */
  addPreviouslyInvoked(key: string): void {
    this.previouslyInvoked.add(key);
  }

  clone(): PluginReinvocation {
    const c = new PluginReinvocation();
    c.lastOutput = this.lastOutput;
    c.previouslyInvoked = new Set(this.previouslyInvoked);
    for (const k of this.reinvoke) c.reinvoke.add(k);
    return c;
  }

  /** Whether some IfNeeded invocation of this plugin ran or is due. */
  get anyReinvocable(): boolean {
    return this.previouslyInvoked.size > 0 || this.reinvoke.size > 0;
  }

  /** The object changed: every IfNeeded invocation since the last change is to run in the second round. */
  requireReinvokingPreviouslyInvoked(): void {
    for (const k of this.previouslyInvoked) this.reinvoke.add(k);
    this.previouslyInvoked = new Set();
  }
}

/** admission.ReinvocationContext: the request's, shared by every mutating plugin over both rounds. */
export class ReinvocationContext {
  /** The second (and last) round is running. */
  isReinvoke = false;
  /** Some plugin changed the object in the first round: the chain runs again. */
  shouldReinvoke = false;
  private values = new Map<string, unknown>();

  /** The plugin's own state (kube: Value/SetValue under the plugin's name), made on first use. */
  value<T>(plugin: string, make: () => T): T {
    if (!this.values.has(plugin)) this.values.set(plugin, make());
    return this.values.get(plugin) as T;
  }

  /**
   * Whether a second round could run anything: some plugin has an IfNeeded invocation behind it. Without one, kube's
   * second round only runs the built-in plugins again, which the store's admission of the final object does anyway.
   */
  get anyReinvocable(): boolean {
    for (const v of this.values.values()) if (v instanceof PluginReinvocation && v.anyReinvocable) return true;
    return false;
  }

  /**
   * A copy to try a round on (a round evaluated again once the authorizer has answered): `adopt` keeps the one
   * that counted. Other values than plugins' reinvocation parts are shared.
   */
  fork(): ReinvocationContext {
    const c = new ReinvocationContext();
    c.isReinvoke = this.isReinvoke;
    c.shouldReinvoke = this.shouldReinvoke;
    for (const [k, v] of this.values) c.values.set(k, v instanceof PluginReinvocation ? v.clone() : v);
    return c;
  }

  adopt(tried: ReinvocationContext): void {
    this.shouldReinvoke = tried.shouldReinvoke;
    this.values = tried.values;
  }

  /**
   * Called by a plugin as its round begins (both dispatchers open so): in the second round, an object changed
   * since the plugin last handed it on makes the plugin's recent IfNeeded invocations due again.
   */
  begin(plugin: string, object: unknown): PluginReinvocation {
    const state = this.value(plugin, () => new PluginReinvocation());
    if (this.isReinvoke && state.outputChangedSinceLastInvocation(object)) state.requireReinvokingPreviouslyInvoked();
    return state;
  }
}

