"""What TensorFlow calls do, for static rules: build graph ops, build a model, make a session.

The questions on a canonical name are pure and asked for every call of every file: memoised."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from graphlint.static.model.names import api, keras_api

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import CallSite

#: Namespaces whose lowercase functions add ops to the graph.
_OP_NAMESPACES = frozenset(
    {"", "math", "nn", "linalg", "image", "random", "strings", "sparse", "signal", "bitwise",
     "losses", "layers", "metrics", "summary", "train"}
)
#: Lowercase names in those namespaces that add no op (scopes, collections, settings, objects).
_NO_OP = frozenset(
    {
        "get_default_graph", "reset_default_graph", "get_default_session", "disable_eager_execution",
        "enable_eager_execution", "disable_v2_behavior", "enable_v2_behavior", "executing_eagerly",
        "executing_eagerly_outside_functions", "global_variables", "trainable_variables",
        "local_variables", "model_variables", "all_variables", "moving_average_variables",
        "get_collection", "get_collection_ref", "add_to_collection", "add_to_collections",
        "get_variable_scope", "variable_scope", "variable_op_scope", "name_scope", "op_scope",
        "device", "control_dependencies", "container", "colocate_with", "init_scope",
        "set_random_seed", "get_seed", "random.set_seed", "random.get_seed", "function",
        "dimension_value", "dimension_at_index", "is_tensor", "as_dtype", "get_logger",
        "get_static_value", "no_regularizer", "fixed_size_partitioner",
        "min_max_variable_partitioner", "variable_axis_size_partitioner", "load_op_library",
        "load_library", "load_file_system_library", "resource_variables_enabled",
        "control_flow_v2_enabled", "enable_resource_variables", "disable_resource_variables",
        "enable_control_flow_v2", "disable_control_flow_v2", "enable_tensor_equality",
        "disable_tensor_equality", "enable_v2_tensorshape", "disable_v2_tensorshape",
        "make_template", "make_tensor_proto", "make_ndarray", "train.global_step",
        "train.latest_checkpoint", "train.get_checkpoint_state", "train.list_variables",
        "train.load_variable", "train.load_checkpoint", "train.checkpoint_exists",
        "train.get_global_step", "train.summary_iterator", "train.write_graph",
        "train.export_meta_graph", "train.update_checkpoint_state", "train.remove_checkpoint",
        "train.get_checkpoint_mtimes", "train.generate_checkpoint_state_proto",
        "train.replica_device_setter", "train.add_queue_runner", "train.start_queue_runners",
        "train.basic_train_loop", "summary.create_file_writer", "summary.record_if",
        "summary.should_record_summaries", "summary.trace_on", "summary.trace_off",
        "summary.trace_export", "summary.experimental.set_step", "summary.get_summary_description",
        "nn.rnn_cell",
    }
)
PLACEHOLDERS = frozenset({"placeholder", "placeholder_with_default", "sparse_placeholder"})
#: ``tf.compat.v1.train.Saver()``, and TF1's SavedModel export that makes one in the default
#: graph at each call (its ``SavedModelBuilder`` with no saver given: 25 ops for a
#: one-variable graph, measured with TF 2.21's ``tf.compat.v1``), for GL101 as for GL102.
_SAVERS = frozenset({"train.Saver", "saved_model.simple_save"})
_VARIABLES = frozenset({"get_variable", "get_local_variable", "Variable"})
_OPTIMIZER_SUFFIX = "Optimizer"
KERAS_MODELS = frozenset({"Sequential", "Model", "models.Sequential", "models.Model", "models.clone_model"})
CLEAR_SESSION = "keras.backend.clear_session"
TF_FUNCTION = "tensorflow.function"


@cache
def builds_ops(name: str | None) -> bool:
    """Whether calling the canonical ``name`` adds ops to the default graph (TF1 graph mode)."""
    rest = api(name)
    if rest is None or name is None:  # api(None) is None: the second says so to mypy
        return False
    if rest in _VARIABLES or rest in _SAVERS:
        return True
    namespace, _, last = rest.rpartition(".")
    if namespace not in _OP_NAMESPACES or not last[:1].islower() or rest in _NO_OP or last in _NO_OP:
        return False
    if last.endswith("_initializer") and not last.endswith("variables_initializer") and last != "tables_initializer":
        return False  # initializer objects, not ops
    if namespace == "train" and not name.startswith("tensorflow.compat.v1."):
        return False  # tf.train in TF2: checkpoints and schedules, not ops
    if namespace in ("summary", "losses", "metrics", "layers") and not name.startswith("tensorflow.compat.v1."):
        return namespace == "layers"  # TF2's tf.summary / tf.losses / tf.metrics are not graph ops
    return True


@cache
def is_optimizer(name: str | None) -> bool:
    rest = api(name)
    if rest is not None:
        return rest.startswith("train.") and rest.endswith(_OPTIMIZER_SUFFIX)
    k = keras_api(name)
    return k is not None and k.startswith("optimizers.") and k[11:12].isupper()


@cache
def builds_model(name: str | None) -> bool:
    """Placeholders, variables, TF1 layers and ``Saver()`` (``simple_save`` makes one): the
    parts of a model."""
    rest = api(name)
    if rest is None or name is None:  # api(None) is None: the second says so to mypy
        return False
    if rest in PLACEHOLDERS or rest in _VARIABLES or rest in _SAVERS:
        return True
    return rest.startswith("layers.") and rest[7:8].islower() and name.startswith("tensorflow.compat.v1.")


@cache
def is_keras_model(name: str | None) -> bool:
    return keras_api(name) in KERAS_MODELS


#: Keras calls that make a whole model from a file or a config, as a constructor does.
KERAS_LOADERS = frozenset(
    {
        "models.load_model", "saving.load_model", "models.model_from_json", "models.model_from_yaml",
        "models.model_from_config", "saving.model_from_config",
    }
)
_FROM_CONFIG = frozenset({"Model", "Sequential", "Functional"})


@cache
def is_keras_loader(name: str | None) -> bool:
    """A Keras loader (``load_model``, ``model_from_json``) or ``Model.from_config`` /
    ``Sequential.from_config``: a whole model from a file or a config."""
    rest = keras_api(name)
    if rest is None:
        return False
    if rest in KERAS_LOADERS:
        return True
    head, _, last = rest.rpartition(".")
    return last == "from_config" and head.rpartition(".")[2] in _FROM_CONFIG


@cache
def is_pretrained_model(name: str | None) -> bool:
    """A ``keras.applications`` constructor (``MobileNetV2(...)``, ``applications.resnet50.ResNet50(...)``):
    it returns a Keras model."""
    k = keras_api(name)
    return k is not None and k.startswith("applications.") and k.rpartition(".")[2][:1].isupper()


def is_train_op(label: str) -> bool:
    """``Optimizer(...).minimize`` / ``.apply_gradients``: the origin label of a training op."""
    inner, _, method = label.rpartition("().")
    return method in ("minimize", "apply_gradients") and is_optimizer(inner)


def is_minimize(module: Module, call: CallSite) -> bool:
    """``optimizer.minimize(loss)`` on a TF1 or Keras optimizer (by its origin in the file)."""
    if call.method not in ("minimize", "apply_gradients"):
        return False
    receiver = call.receiver
    if receiver is None:
        return False
    if hasattr(receiver, "func"):
        return is_optimizer(module.bindings.resolve(receiver.func))
    origins = module.origins(receiver, call.scope)
    return bool(origins) and all(is_optimizer(o) for o in origins)
