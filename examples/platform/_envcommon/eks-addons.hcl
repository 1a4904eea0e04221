# EKS managed add-ons (CoreDNS, EBS CSI driver, pod identity agent). Units that include this file with
# expose = true read local.eks_dir (include.envcommon.locals.eks_dir) for their own dependency on the cluster.
locals {
  eks_dir = "${get_terragrunt_dir()}/../eks"
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

# CoreDNS and the CSI controllers need nodes to schedule on, but read nothing from node-groups: an ordering-only
# edge. A unit's own dependencies { paths } are added to these (the lists are concatenated on include).
dependencies {
  paths = ["../node-groups"]
}

inputs = {
  name      = "eks-addons"
  namespace = "kube-system"
  settings = {
    addons = ["coredns", "aws-ebs-csi-driver", "eks-pod-identity-agent", "metrics-server"]
  }
}
