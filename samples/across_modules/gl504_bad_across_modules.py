"""GL504 predict-in-loop: the agent of another module asked for an action on every step.

`Agent.choose_action` (in `stepping_agent.py` beside this file) predicts on one observation; this
loop calls it once per step. `graphlint check` reports the `predict` line in `stepping_agent.py`,
with this file's call and loop related.
"""

import numpy as np

from stepping_agent import Agent

agent = Agent(n_actions=2)
observations = np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(8, 4)
actions = []
for observation in observations:
    actions.append(agent.choose_action(observation))
print(actions)
