import json, sys, math
# Writes scenes/castro-clutter.json and castro-clutter-nowalls.json (Castro et al. 2023 §VI-C),
# 40 bodies, and castro-clutter-200.json / castro-clutter-nowalls-200.json, the same columns
# continued upwards to 200 bodies for the scalability study (Figs. 11-12): the paper drops "four
# different columns with the same number of objects in each", so body i of the 200-body scenes
# is body i of the 40-body ones for i < 40 (figures --paper castro2023 keeps their first N).
# Usage: python3 scripts/make_castro2023.py scenes
def scene(n, walls, name, desc, steps=None, quick_steps=3):
    cols = 4
    cxy = [(-0.2,-0.2),(0.2,-0.2),(-0.2,0.2),(0.2,0.2)]
    bodies = [{"name":"floor","type":"static","shapes":[{"type":"plane","material":"container"}]}]
    if walls:
        for nm,pos,he in [("wall_xm",[-0.425,0,0.4],[0.025,0.45,0.4]),("wall_xp",[0.425,0,0.4],[0.025,0.45,0.4]),
                          ("wall_ym",[0,-0.425,0.4],[0.4,0.025,0.4]),("wall_yp",[0,0.425,0.4],[0.4,0.025,0.4])]:
            bodies.append({"name":nm,"type":"static","position":pos,"shapes":[{"type":"box","half_extents":he,"material":"container"}]})
    for i in range(n):
        c = i % cols; j = i // cols
        x, y = cxy[c]
        # small deterministic offsets so that the columns topple
        dx = 0.01*((j*7+c*3) % 5 - 2)/2; dy = 0.01*((j*3+c*5) % 5 - 2)/2
        z = 0.06 + 0.15*j
        if (c + j) % 2 == 0:
            bodies.append({"name":"s%03d"%i,"type":"dynamic","mass":0.524,"position":[round(x+dx,4),round(y+dy,4),round(z,4)],
                           "shapes":[{"type":"sphere","radius":0.05,"material":"object"}]})
        else:
            bodies.append({"name":"b%03d"%i,"type":"dynamic","mass":1.0,"position":[round(x+dx,4),round(y+dy,4),round(z,4)],
                           "axis":[0.3,0.5,1.0],"angle":round(0.2+0.37*j,4),
                           "shapes":[{"type":"box","half_extents":[0.05,0.05,0.05],"material":"object"}]})
    sc = {"name":name,"description":desc,"timestep":0.01,"duration":10.0,
          "materials":[{"name":"object","friction":1.0,"stiffness":1e12,"dissipation":0.005},
                       {"name":"container","friction":1.0,"dissipation":0.005}],
          "bodies":bodies,
          "benchmark":{"capture":"trajectory","every":5,"steps":200,"quick_steps":quick_steps,"driver":"sap",
                       "driver_budget":{"tol":1e-8,"max_iter":100},
                       "solvers":["sap","admm","apgd","pgs-ccp","admm-ccp"],
                       "budget":{"tol":1e-6,"max_iter":1000},
                       "params":{"sap":{"rel_tol":1e-5}}}}
    return sc
common = ("Castro et al. 2023 §VI-C clutter: %d bodies (spheres r 5 cm 0.524 kg alternating with 10 cm boxes of 1 kg) dropped in 4 columns at (+-0.2, +-0.2) m, %s; "
 "mu 1, h 10 ms, 10 s, SAP drives the trajectory (rel_tol 1e-5, the paper's inferred clutter epsilon_r); every 5th of the 1000 steps is captured. "
 "Not in the paper, ours: drop heights 0.06 + 0.15 j m (level j, centres), columns 0.4 m apart, offsets up to 1 cm and box tilts so the columns topple, the floor a plane. "
 "Contact model: objects k 1e12 N/m, tau_d 5 ms per material; the container rigid, tau_d 5 ms: object-container contacts get k 1e12, tau_d = h, object-object k 5e11 (springs in series), tau_d = h; "
 "all are in SAP's near-rigid regime (eq. 29), where k does not enter R_n.")
for n, sfx in [(40, ""), (200, "-200")]:
    for walls, fn, nm in [(1,"castro-clutter%s.json","castro-clutter%s"),(0,"castro-clutter-nowalls%s.json","castro-clutter-nowalls%s")]:
        d = common % (n, "inside an 80 x 80 x 80 cm box (a floor and four static 5 cm thick walls)" if walls else "on the floor alone (no walls)")
        if n != 40:
            d += " The scalability scene (Figs. 11-12): its first N bodies are the N-body clutter; the 40-body scenes are its first 40."
        json.dump(scene(n, walls, nm % sfx, d), open(sys.argv[1]+"/"+(fn % sfx),"w"), indent=1)
