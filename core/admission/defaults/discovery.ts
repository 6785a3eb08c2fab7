// Canonical layer admission: discovery.k8s.io/v1 EndpointSlice defaulting (kubernetes
// pkg/apis/discovery/v1/defaults.go SetDefaults_EndpointPort): a port's name is "" and its protocol
// TCP; an endpoint's conditions are a struct, always written.

import { fill, isObject, objects, type Obj } from './fill';

export function endpointSlice(obj: Obj): void {
  for (const p of objects(obj.ports)) fill(p, { name: '', protocol: 'TCP' });
  for (const e of objects(obj.endpoints)) if (!isObject(e.conditions)) e.conditions = {};
}
