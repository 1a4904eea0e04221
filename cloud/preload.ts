/**
 * Starting the heavy imports early. `@kubernetes/client-node` takes ~330 ms to import (more on a loaded machine) and
 * the AWS SDK clients ~100-200 ms each; a command that knows it will need them can start loading them while it
 * waits on the network for something else, instead of paying for them on its critical path.
 */

export interface PreloadNeeds {
  readonly aws: boolean;
  readonly kube: boolean;
}

/** Begins importing the modules `needs` names; failures surface later, where the module is really used. */
export function preloadCloudModules(needs: PreloadNeeds): void {
  const ignore = () => undefined;
  if (needs.aws) {
    void import('@aws-sdk/client-sts').catch(ignore);
    void import('@aws-sdk/client-s3').catch(ignore);
    // Not @aws-sdk/credential-providers: credentials from the environment never need it.
  }
  if (needs.kube) {
    void import('@kubernetes/client-node').catch(ignore);
    void import('@aws-sdk/client-eks').catch(ignore);
  }
}
